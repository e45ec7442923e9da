import{Ma as r,Z as o,d as e}from"./chunk-WDZFDQCI.js";e(o(r,{}),document.getElementById("app"));
