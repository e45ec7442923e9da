import{f as a,g as b}from"./chunk-PIW3ECAL.js";import"./chunk-NBJNYYUY.js";export{a as ChannelSettingsDialog,b as RoleChip};
