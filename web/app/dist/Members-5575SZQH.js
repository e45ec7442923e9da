import{a,b}from"./chunk-H6XE4S2C.js";import"./chunk-PIW3ECAL.js";import"./chunk-NBJNYYUY.js";export{b as MemberAdmin,a as MembersScreen};
