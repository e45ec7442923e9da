import{a,b,c,d,e}from"./chunk-XMXGEWXT.js";import"./chunk-XNXAZZK2.js";import"./chunk-NBJNYYUY.js";export{a as LIMITS,c as ModeField,e as QuestionsField,b as SettingsScreen,d as questionsOver};
