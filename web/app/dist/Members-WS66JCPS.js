import{a,b}from"./chunk-SBESHL6Y.js";import"./chunk-S4BGMEHE.js";import"./chunk-C54DGHBG.js";export{b as MemberAdmin,a as MembersScreen};
