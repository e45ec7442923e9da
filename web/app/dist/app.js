import{d as e,ea as o,eb as i}from"./chunk-Y6PCD4QK.js";e(o(i,{}),document.getElementById("app"));
