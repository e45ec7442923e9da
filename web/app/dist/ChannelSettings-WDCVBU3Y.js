import{f as a,g as b}from"./chunk-VIT6HFVK.js";import"./chunk-P3EGGS7M.js";import"./chunk-WPMKOIE5.js";import"./chunk-22MT47GS.js";export{a as ChannelSettingsDialog,b as RoleChip};
