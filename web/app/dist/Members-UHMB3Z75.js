import{a,b}from"./chunk-TZR65HGT.js";import"./chunk-H5A2JM6Y.js";import"./chunk-J4NRNAKW.js";import"./chunk-F3XGK6QX.js";export{b as MemberAdmin,a as MembersScreen};
