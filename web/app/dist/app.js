import{d as e,ja as o,jb as i}from"./chunk-BPVID5G7.js";e(o(i,{}),document.getElementById("app"));
