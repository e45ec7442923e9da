import{f as a,g as b}from"./chunk-X6EVAYPW.js";import"./chunk-G3H4IWFO.js";import"./chunk-HYFQPYCK.js";import"./chunk-MEKASNP5.js";export{a as ChannelSettingsDialog,b as RoleChip};
