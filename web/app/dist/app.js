import{d as e,ia as o,kb as i}from"./chunk-F3XGK6QX.js";e(o(i,{}),document.getElementById("app"));
