import{f as a,g as b}from"./chunk-S6LKMFV7.js";import"./chunk-2FVKKBWN.js";import"./chunk-QXBRUG7F.js";import"./chunk-BPVID5G7.js";export{a as ChannelSettingsDialog,b as RoleChip};
