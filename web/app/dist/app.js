import{Xa as i,d as e,fa as o}from"./chunk-LQ356FBP.js";e(o(i,{}),document.getElementById("app"));
