import{f as a,g as b}from"./chunk-4TR5XHKE.js";import"./chunk-UQT2SZJE.js";import"./chunk-2EZMXL2G.js";import"./chunk-TT6P6TXG.js";export{a as ChannelSettingsDialog,b as RoleChip};
