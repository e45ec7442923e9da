import{d as e,ia as o,kb as i}from"./chunk-AKHIKCVX.js";e(o(i,{}),document.getElementById("app"));
