import{f as a,g as b}from"./chunk-H7QZU76M.js";import"./chunk-K6TVSRZJ.js";export{a as ChannelSettingsDialog,b as RoleChip};
