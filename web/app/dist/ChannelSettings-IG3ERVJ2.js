import{f as a,g as b}from"./chunk-S4BGMEHE.js";import"./chunk-C54DGHBG.js";export{a as ChannelSettingsDialog,b as RoleChip};
