import{Xa as r,d as e,fa as o}from"./chunk-MEKASNP5.js";e(o(r,{}),document.getElementById("app"));
