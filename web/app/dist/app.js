import{d as e,ib as i,ja as o}from"./chunk-ODJFLF4L.js";e(o(i,{}),document.getElementById("app"));
