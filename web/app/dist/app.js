import{d as e,ea as o,eb as i}from"./chunk-K6TVSRZJ.js";e(o(i,{}),document.getElementById("app"));
