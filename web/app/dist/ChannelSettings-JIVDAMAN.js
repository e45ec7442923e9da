import{f as a,g as b}from"./chunk-6WXKPSQ6.js";import"./chunk-W56PWRU2.js";import"./chunk-MVOBGX5Z.js";import"./chunk-XPKUJ47I.js";export{a as ChannelSettingsDialog,b as RoleChip};
