import{d as e,ea as o,eb as i}from"./chunk-NBJNYYUY.js";e(o(i,{}),document.getElementById("app"));
