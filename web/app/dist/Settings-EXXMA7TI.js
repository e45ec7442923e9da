import{a,b,c,d,e}from"./chunk-TDNRNUJO.js";import"./chunk-VRAOBBTE.js";import"./chunk-Y6PCD4QK.js";export{a as LIMITS,c as ModeField,e as QuestionsField,b as SettingsScreen,d as questionsOver};
