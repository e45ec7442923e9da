import{d as e,la as o,lb as i}from"./chunk-22MT47GS.js";e(o(i,{}),document.getElementById("app"));
