function hello(r) {
  r.return(200, 'hello');
}
function greet(r) {
  return 'hi';
}
function headers(r) {
  r.headersOut['X-Njs'] = '1';
}
function preread(s) {
  s.allow();
}
export default { hello, greet, headers, preread };
