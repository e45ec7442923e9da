import{f as a,g as b}from"./chunk-GYLIEG2I.js";import"./chunk-SWO7WLNR.js";import"./chunk-AYVPNA7X.js";import"./chunk-I6NNIKHT.js";export{a as ChannelSettingsDialog,b as RoleChip};
