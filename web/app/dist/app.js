import{d as e,la as o,lb as i}from"./chunk-R4SOIUVI.js";e(o(i,{}),document.getElementById("app"));
