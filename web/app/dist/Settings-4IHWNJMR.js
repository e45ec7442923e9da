import{a,b,c,d,e}from"./chunk-SJYWMPB7.js";import"./chunk-6C7AVYYG.js";import"./chunk-AKHIKCVX.js";export{a as LIMITS,c as ModeField,e as QuestionsField,b as SettingsScreen,d as questionsOver};
