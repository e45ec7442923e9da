import{d as e,ib as i,ja as o}from"./chunk-TI3JMLUY.js";e(o(i,{}),document.getElementById("app"));
