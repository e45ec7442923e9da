import{f as a,g as b}from"./chunk-YZSGXBVI.js";import"./chunk-VUGOSEPK.js";import"./chunk-XFXV3QNQ.js";import"./chunk-R4SOIUVI.js";export{a as ChannelSettingsDialog,b as RoleChip};
