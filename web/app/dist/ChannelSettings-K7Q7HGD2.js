import{f as a,g as b}from"./chunk-PMDFXMAV.js";import"./chunk-ZSRBZCPP.js";import"./chunk-TWKOPOUL.js";import"./chunk-O53XLGCH.js";export{a as ChannelSettingsDialog,b as RoleChip};
