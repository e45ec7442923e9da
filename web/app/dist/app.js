import{d as e,la as o,lb as i}from"./chunk-O53XLGCH.js";e(o(i,{}),document.getElementById("app"));
