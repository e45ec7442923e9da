import{a,b,c,d,e}from"./chunk-XGAN4MZX.js";import"./chunk-MWASYGLB.js";import"./chunk-C54DGHBG.js";export{a as LIMITS,c as ModeField,e as QuestionsField,b as SettingsScreen,d as questionsOver};
