import{f as a,g as b}from"./chunk-OE2QY4YG.js";import"./chunk-3G4AEBIZ.js";import"./chunk-GC2VJ33B.js";import"./chunk-ZD4ESAPE.js";export{a as ChannelSettingsDialog,b as RoleChip};
