import{d as e,ja as o,jb as i}from"./chunk-BWJXOC2V.js";e(o(i,{}),document.getElementById("app"));
