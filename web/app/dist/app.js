import{d as e,ja as o,jb as i}from"./chunk-ZLJCB3IE.js";e(o(i,{}),document.getElementById("app"));
