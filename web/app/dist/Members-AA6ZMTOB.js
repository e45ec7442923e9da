import{a,b}from"./chunk-SK7LHINA.js";import"./chunk-X6EVAYPW.js";import"./chunk-G3H4IWFO.js";import"./chunk-HYFQPYCK.js";import"./chunk-MEKASNP5.js";export{b as MemberAdmin,a as MembersScreen};
