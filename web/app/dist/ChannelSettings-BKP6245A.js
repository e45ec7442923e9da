import{f as a,g as b}from"./chunk-THIDRPOX.js";import"./chunk-AKHIKCVX.js";export{a as ChannelSettingsDialog,b as RoleChip};
