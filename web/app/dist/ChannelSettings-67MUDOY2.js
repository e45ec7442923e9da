import{f as a,g as b}from"./chunk-SBWILSQX.js";import"./chunk-C66X2MVN.js";import"./chunk-HCO2X4PZ.js";import"./chunk-BWJXOC2V.js";export{a as ChannelSettingsDialog,b as RoleChip};
