import{d as e,ea as o,eb as i}from"./chunk-YXXYW2XX.js";e(o(i,{}),document.getElementById("app"));
