import{f as a,g as b}from"./chunk-O3HQER3I.js";import"./chunk-7YU2B2KV.js";import"./chunk-WDZFDQCI.js";export{a as ChannelSettingsDialog,b as RoleChip};
