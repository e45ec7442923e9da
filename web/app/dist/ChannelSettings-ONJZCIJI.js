import{f as a,g as b}from"./chunk-URLS6PG5.js";import"./chunk-Y6PCD4QK.js";export{a as ChannelSettingsDialog,b as RoleChip};
