import{a,b}from"./chunk-2ZC6OVCA.js";import"./chunk-H5A2JM6Y.js";import"./chunk-THIDRPOX.js";import"./chunk-AKHIKCVX.js";export{b as MemberAdmin,a as MembersScreen};
