import{d as e,ea as o,eb as i}from"./chunk-C54DGHBG.js";e(o(i,{}),document.getElementById("app"));
