import{d as e,ib as i,ja as o}from"./chunk-ZD4ESAPE.js";e(o(i,{}),document.getElementById("app"));
