import{a,b}from"./chunk-PNAV2KRH.js";import"./chunk-H7QZU76M.js";import"./chunk-K6TVSRZJ.js";export{b as MemberAdmin,a as MembersScreen};
