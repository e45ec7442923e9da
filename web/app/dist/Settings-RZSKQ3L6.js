import{a,b,c,d,e}from"./chunk-72DGRLIE.js";import"./chunk-YOKSYZFV.js";import"./chunk-K6TVSRZJ.js";export{a as LIMITS,c as ModeField,e as QuestionsField,b as SettingsScreen,d as questionsOver};
