import{a,b}from"./chunk-6ML7QTFC.js";import"./chunk-6WXKPSQ6.js";import"./chunk-W56PWRU2.js";import"./chunk-MVOBGX5Z.js";import"./chunk-XPKUJ47I.js";export{b as MemberAdmin,a as MembersScreen};
