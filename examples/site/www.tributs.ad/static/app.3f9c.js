// Sample single-page app for the sv_scrapy demo: the text exists only once this has run.
document.getElementById("root").innerHTML =
  "<h1>Impost sobre la renda dels no residents</h1>" +
  "<p>Els rendiments del lloguer d'immobles situats a Andorra tributen a un tipus fix del 10 %.</p>" +
  "<p>La declaració es presenta trimestralment davant del Departament de Tributs i de Fronteres.</p>" +
  "<p>Pàgina d'exemple: les xifres són il·lustratives i no substitueixen la normativa vigent.</p>";
