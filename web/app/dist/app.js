import{d as e,la as o,lb as i}from"./chunk-TT6P6TXG.js";e(o(i,{}),document.getElementById("app"));
