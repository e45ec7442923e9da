import{f as a,g as b}from"./chunk-4TBKB7SK.js";import"./chunk-NUO227Z7.js";import"./chunk-ADKZURFQ.js";import"./chunk-ODJFLF4L.js";export{a as ChannelSettingsDialog,b as RoleChip};
