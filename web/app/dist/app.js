import{d as e,ib as i,ja as o}from"./chunk-E2CNHOA6.js";e(o(i,{}),document.getElementById("app"));
