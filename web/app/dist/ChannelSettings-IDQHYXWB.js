import{f as a,g as b}from"./chunk-J4NRNAKW.js";import"./chunk-F3XGK6QX.js";export{a as ChannelSettingsDialog,b as RoleChip};
