import{f as a,g as b}from"./chunk-BSOIWK6U.js";import"./chunk-UJWCHLFW.js";import"./chunk-VKHITBVP.js";import"./chunk-E2CNHOA6.js";export{a as ChannelSettingsDialog,b as RoleChip};
