import{Xa as r,d as e,fa as o}from"./chunk-XPKUJ47I.js";e(o(r,{}),document.getElementById("app"));
