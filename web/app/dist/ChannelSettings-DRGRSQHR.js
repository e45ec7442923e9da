import{f as a,g as b}from"./chunk-WANFJPOF.js";import"./chunk-MS6WFA5J.js";import"./chunk-HPPSUL6H.js";import"./chunk-ZLJCB3IE.js";export{a as ChannelSettingsDialog,b as RoleChip};
