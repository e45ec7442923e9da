import{a,b,c,d,e}from"./chunk-ZWGJZRI4.js";import"./chunk-445WB5DO.js";import"./chunk-F3XGK6QX.js";export{a as LIMITS,c as ModeField,e as QuestionsField,b as SettingsScreen,d as questionsOver};
