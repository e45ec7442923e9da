import{d as e,ib as i,ja as o}from"./chunk-I6NNIKHT.js";e(o(i,{}),document.getElementById("app"));
