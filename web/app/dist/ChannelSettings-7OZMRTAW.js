import{f as a,g as b}from"./chunk-F73ITTXE.js";import"./chunk-MS3T3VRK.js";import"./chunk-RAK4KDCG.js";import"./chunk-TI3JMLUY.js";export{a as ChannelSettingsDialog,b as RoleChip};
