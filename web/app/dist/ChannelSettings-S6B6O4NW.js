import{f as a,g as b}from"./chunk-7ID5YI5F.js";import"./chunk-7XO6BV6R.js";import"./chunk-AU43BOPB.js";import"./chunk-LQ356FBP.js";export{a as ChannelSettingsDialog,b as RoleChip};
