import{a,b}from"./chunk-WGBXCMGB.js";import"./chunk-URLS6PG5.js";import"./chunk-Y6PCD4QK.js";export{b as MemberAdmin,a as MembersScreen};
